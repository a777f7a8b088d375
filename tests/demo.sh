#!/bin/sh
# make demo: argus over a built-in demo load (a page-fault loop argus spawns).
# As root: live sampling, reference (load paused) vs loaded windows.
# Otherwise: argus needs no privileges to browse the shipped recorded profiles.
cd "$(dirname "$0")/.." || exit 2
if [ "$(id -u)" = 0 ]; then
	echo "demo: argus on a page-fault loop (build/scenarios/pagefault); q quits"
	sleep 1
	exec ./argus --load "build/scenarios/pagefault --seconds 600"
fi
echo "demo: not root, so no live probes; replaying a recorded diagnosis instead"
echo "      (tests/data/session-pagefault.jsonl: argus diagnose on a page-fault loop)"
echo "      n steps forward, p back, x explains a node, w writes a report, q quits"
echo "      (run 'sudo make demo' for the live demo)"
sleep 2
exec ./argus replay tests/data/session-pagefault.jsonl
