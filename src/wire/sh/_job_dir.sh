# What is known of job $1 (d, its directory): refuses an unknown one.
d=@JOB_BASE@/$1
[ -d "$d" ] || { echo 'E nojob'; exit 0; }
