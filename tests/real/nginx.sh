#!/bin/sh
# nginx.sh — nginx (one worker, scratch prefix, 127.0.0.1 only) serving a
# 16 KiB static file to wrk (one thread, --connections, default 32) until
# killed.  The kernel's part: accept, epoll, the response's sendfile /
# writev through tcp_sendmsg_locked, and the loopback receive.
. "$(dirname "$0")/lib.sh"
real_need nginx wrk python3
conns=32 size=16
while [ $# -gt 0 ]; do
	case $1 in
	--connections) conns=$2; shift ;;
	--kib) size=$2; shift ;;
	*) real_die "unknown option $1 (--connections N, --kib N)" ;;
	esac
	shift
done
real_scratch
port=$(real_port)
mkdir -p "$REAL_SCR/html" "$REAL_SCR/logs"
head -c $((size * 1024)) /dev/urandom > "$REAL_SCR/html/f"
cat > "$REAL_SCR/nginx.conf" <<EOC
daemon off;
master_process off;
worker_processes 1;
pid $REAL_SCR/nginx.pid;
error_log $REAL_SCR/logs/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $REAL_SCR/cb;
	proxy_temp_path $REAL_SCR/px;
	fastcgi_temp_path $REAL_SCR/fc;
	uwsgi_temp_path $REAL_SCR/uw;
	scgi_temp_path $REAL_SCR/sc;
	sendfile on;
	server {
		listen 127.0.0.1:$port;
		root $REAL_SCR/html;
	}
}
EOC
real_bg nginx -p "$REAL_SCR" -c "$REAL_SCR/nginx.conf" -e "$REAL_SCR/logs/error.log"
real_wait_port "$port"
real_bg wrk -t 1 -c "$conns" -d 100000s "http://127.0.0.1:$port/f"
real_wait
