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
echo "demo: not root, so no live probes; browsing recorded profiles instead"
echo "      (run 'sudo make demo' for the live demo)"
sleep 1
exec ./argus diff tests/data/ref.folded tests/data/load.folded
