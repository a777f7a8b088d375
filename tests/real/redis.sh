#!/bin/sh
# redis.sh — a Redis server under its own benchmark on 127.0.0.1:
# redis-server (no persistence, scratch dir) and redis-benchmark looping
# over SET and GET with --clients connections (default 50), until killed.
# The kernel's part is loopback TCP: the server's replies go through
# write(2) and the client's requests through sendto... both into
# tcp_sendmsg_locked (tests/real/README).
. "$(dirname "$0")/lib.sh"
real_need redis-server redis-benchmark python3
clients=50 tests=set,get pipe=1
while [ $# -gt 0 ]; do
	case $1 in
	--clients) clients=$2; shift ;;
	--tests) tests=$2; shift ;;
	--pipeline) pipe=$2; shift ;;
	*) real_die "unknown option $1 (--clients N, --tests LIST, --pipeline N)" ;;
	esac
	shift
done
real_scratch
port=$(real_port)
real_bg redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
	--dir "$REAL_SCR" --daemonize no --logfile "$REAL_SCR/redis.log" --protected-mode yes
real_wait_port "$port"
real_bg redis-benchmark -h 127.0.0.1 -p "$port" -c "$clients" -P "$pipe" -t "$tests" \
	-n 100000000 -l -q > /dev/null
real_wait
