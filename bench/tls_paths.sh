# The TLS benches' binaries as absolute paths (the PKI's maker and s_server
# run in other folders), relative ones taken from the current folder: BUILD
# (default: build/ beside bench/), G (GOSTX, default BUILD/gostx) and BASE
# (a gostx to compare, when set). Sourced with HERE set to bench/.
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BUILD=$(abs "${BUILD:-$HERE/../build}")
G=$(abs "${GOSTX:-$BUILD/gostx}")
[ -n "$BASE" ] && BASE=$(abs "$BASE")
