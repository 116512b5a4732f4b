# The newer-OpenSSL Debian roots that .ci/compat tests in and bench/run --against-root
# measures in: sourced by both (bash), so a version names the same root everywhere.
#
# Version -> Debian suite and root name. libc6-dev is named because debootstrap installs
# no Recommends, and gcc only recommends it (without it no program links: crti.o is
# missing). OpenSSL 4.0 is in no release yet: its root is an unstable one with the
# OpenSSL packages of `experimental` (.ci/debroot --experimental; libssl4 comes with them).
declare -A suite_of=([3.5]=trixie [3.6]=sid [4.0]=sid)
declare -A root_of=([3.5]=trixie-compat [3.6]=sid-compat [4.0]=sid-ossl40)
declare -A experimental_of=([4.0]="openssl libssl-dev")
packages=(gcc libc6-dev meson ninja-build pkg-config libssl-dev openssl libcmocka-dev python3
          valgrind)
all_versions=(3.5 3.6 4.0)
