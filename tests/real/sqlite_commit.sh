#!/bin/sh
# sqlite_commit.sh — sqlite3 committing one small row per transaction to a
# database on the disk (synchronous=FULL, rollback journal), fed by a
# producer through a pipe, until killed.  Each commit writes and fsyncs the
# journal and the database: ext4_sync_file, the jbd2 commit, the disk.
. "$(dirname "$0")/lib.sh"
real_need sqlite3
real_scratch
mkfifo "$REAL_SCR/sql"
sqlite3 "$REAL_SCR/db" 'PRAGMA journal_mode=DELETE; CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB);' >/dev/null ||
	real_die "sqlite3 cannot create $REAL_SCR/db"
# the producer: one autocommit INSERT per line
# (each side opens the fifo in its own process: an open blocks until the
# other end is opened too)
real_bg sh -c 'exec > "$1"; echo "PRAGMA synchronous=FULL;"
	while :; do echo "INSERT INTO t(v) VALUES(randomblob(200));"; done' producer "$REAL_SCR/sql"
real_bg sh -c 'exec sqlite3 "$1" < "$2" > /dev/null' consumer "$REAL_SCR/db" "$REAL_SCR/sql"
real_wait
