# state: for the job in $d, x its exit status ("-" while none), a 1 while
# its runner lives, z 1 once its output is all kept.
#. _job_st.sh
state() {
  x=- a=0 z=0 r= q=
  { read -r x <"$d/exit"; } 2>/dev/null
  case $x in ''|*[!0-9]*|????*) x=- ;; esac
  [ ! -e "$d/done" ] || z=1
  { read -r r q <"$d/runner"; } 2>/dev/null || return 0
  case $r in ''|*[!0-9]*) return 0 ;; esac
  if st "$r" && [ "$s" = "$q" ]; then a=1; fi
}
