#!/bin/sh
# fswalk.sh — a filesystem walk in a loop: find over /usr with a stat of
# every entry (-printf %s), until killed.  The first pass can be cold (the
# directory blocks read from the disk), the later ones warm: the kernel's
# part is then getdents64 (ext4_readdir) and the path walk of each
# newfstatat (link_path_walk, lookup_fast, d_hash lookups).
#   --cold  drop the page, dentry and inode caches first (root): the first
#           pass reads every directory block from the disk, the later ones
#           do not: a load that changes character while measured (issue 23
#           item 4), made so on purpose, not by what evicted what before
. "$(dirname "$0")/lib.sh"
real_need find
cold=0
[ "${1:-}" = --cold ] && { cold=1; shift; }
dir=${1:-/usr}
real_scratch # (none needed: removes dead loads' directories)
if [ $cold = 1 ]; then
	sync
	echo 3 > /proc/sys/vm/drop_caches || real_die "--cold: cannot drop the caches (root only)"
fi
real_bg sh -c 'while :; do find "$1" -xdev -printf "%s\n" > /dev/null 2>&1; done' walk "$dir"
real_wait
