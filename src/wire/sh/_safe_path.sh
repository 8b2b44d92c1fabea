# The PATH of our own scripts: the system's directories only, so that
# nothing a command drops into /usr/local/bin (or a PATH of its
# environment) runs in their place.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
