# runtime_probe.sh: SCRIPT_RUNTIME_PROBE, doctor's try of a runtime in a
# throwaway container (scripts.h). It says the kernel, and then lists /
# with the image's ls: Debian's runsc (20221219) fails the statx of
# coreutils 9 (EINVAL), and with it the image's ls and stat, which the
# file tools use. A second line says that it failed, and how.
uname -r || exit 1
e=$(ls / 2>&1 >/dev/null) || printf '%s\n' "ls /: ${e:-failed}"
