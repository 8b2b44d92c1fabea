# Whether the file $f can be read, or a refusal and exit. Refusals first,
# so that the host can name the reason; [ -f ] last, so that a FIFO or a
# device is refused rather than read forever.
if [ -d "$f" ]; then echo 'E isdir'; exit 0; fi
if [ ! -e "$f" ]; then echo 'E notfound'; exit 0; fi
if [ ! -f "$f" ]; then echo 'E notfile'; exit 0; fi
if [ ! -r "$f" ]; then echo 'E denied'; exit 0; fi
