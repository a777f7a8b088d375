/* probe_tplat — the tracepoint_latency kind: latency between a begin and an
 * end raw tracepoint (bpf/tplat.bpf.c).  Everything else of it is private to
 * core/probe/probe_tplat.c; the table of kinds (core/probe/kind.c) reaches
 * it through its ops.
 */
#ifndef ARGUS_PROBE_TPLAT_H
#define ARGUS_PROBE_TPLAT_H

#include "probe/kind_ops.h"

extern const struct kind_ops probe_tplat_kind_ops;

#endif
