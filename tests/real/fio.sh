#!/bin/sh
# fio.sh — fio on a file in a scratch directory on the disk, until killed.
#   --mode randread   4 KiB O_DIRECT random reads, psync (block: the bio
#                     submitted through iomap_dio_rw and blk-mq, the wait)
#   --mode dwrite     64 KiB O_DIRECT random writes, 2 jobs (the aggressor
#                     of sqlite_victim: it fills the disk queue)
#   --mode bufwrite   4 KiB buffered sequential overwrites of a 64 MiB file
#                     (fs: ext4_buffered_write_iter, the page cache)
#   --mode samefile   buffered 256 KiB writes by --jobs N (default 3) to one
#                     file: each takes the inode's i_rwsem (locking)
#   --file PATH       samefile: the file (default: in the scratch directory);
#                     a victim and its aggressor pass the same one
#   --mib M           file size (default 64)
. "$(dirname "$0")/lib.sh"
real_need fio
mode= mib= jobs=3 file=
while [ $# -gt 0 ]; do
	case $1 in
	--mode) mode=$2; shift ;;
	--mib) mib=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--file) file=$2; shift ;;
	*) real_die "unknown option $1 (--mode randread|dwrite|bufwrite|samefile, --mib M, --jobs N, --file PATH)" ;;
	esac
	shift
done
real_scratch
common="--directory=$REAL_SCR --time_based --runtime=1000000 --output=/dev/null"
case $mode in
randread) set -- --name=rr --size=${mib:-64}M --rw=randread --bs=4k --direct=1 --ioengine=psync ;;
dwrite) set -- --name=dw --size=${mib:-64}M --rw=randwrite --bs=64k --direct=1 --ioengine=psync --numjobs=2 ;;
bufwrite) set -- --name=bw --size=${mib:-64}M --rw=write --bs=4k --ioengine=psync --invalidate=0 ;;
samefile) set -- --name=sf --filename="${file:-$REAL_SCR/sf}" --size=${mib:-64}M --rw=randwrite --bs=256k --ioengine=psync --invalidate=0 \
	--numjobs="$jobs" ;;
*) real_die "--mode randread|dwrite|bufwrite|samefile is needed" ;;
esac
# shellcheck disable=SC2086
real_bg fio $common "$@"
real_wait
