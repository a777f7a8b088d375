#!/bin/sh
# A load of kworker work items: one /proc/sys/vm/stat_refresh writer per CPU
# (each write runs schedule_on_each_cpu(refresh_vm_stats) and waits for it).
# Used by tests/live/kwork.sh and tests/bench/wq_cost.sh; runs until killed.
n=$(nproc)
while [ "$n" -gt 1 ]; do
	(while :; do echo 1 > /proc/sys/vm/stat_refresh; done) &
	n=$((n - 1))
done
while :; do echo 1 > /proc/sys/vm/stat_refresh; done
