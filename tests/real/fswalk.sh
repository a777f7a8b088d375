#!/bin/sh
# fswalk.sh — a filesystem walk in a loop: find over /usr with a stat of
# every entry (-printf %s), until killed.  The first pass can be cold (the
# directory blocks read from the disk), the later ones warm: the kernel's
# part is then getdents64 (ext4_readdir) and the path walk of each
# newfstatat (link_path_walk, lookup_fast, d_hash lookups).
. "$(dirname "$0")/lib.sh"
real_need find
dir=${1:-/usr}
real_scratch # (none needed: removes dead loads' directories)
real_bg sh -c 'while :; do find "$1" -xdev -printf "%s\n" > /dev/null 2>&1; done' walk "$dir"
real_wait
