# job_cmd.sh: SCRIPT_JOB_CMD, the wrapper of a job's command.
# sh -c SCRIPT_JOB_CMD sandbox-job DIR PATH
# HASPATH CMD...: says who it is (it leads the job's process group),
# puts the caller's exported variables (DIR/env) and PATH back, and
# becomes the command.
#. _job_st.sh
st $$ || s=0
echo "$$ $s" >"$1/pid"
. "$1/env"
if [ "$3" = 1 ]; then PATH=$2; else unset PATH; fi
shift 3
exec "$@"
