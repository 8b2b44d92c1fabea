# GNU tar unquotes the names it is given (a file named p\t would be
# taken for p and a tab) unless told --no-unquote, which BusyBox's tar
# refuses: q says it where tar takes it, as ${q:+"$q"}.
q=; tar --no-unquote -cf /dev/null -T /dev/null 2>/dev/null && q=--no-unquote
