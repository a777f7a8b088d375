/* source — names of the source phases (the interface is in source.h). */
#include "measure/source.h"

const char *source_phase_name(enum source_phase ph)
{
	switch (ph) {
	case SOURCE_STARTING: return "starting";
	case SOURCE_SETTLING: return "settling";
	case SOURCE_REF: return "reference";
	case SOURCE_LOAD: return "loaded";
	case SOURCE_LIVE: return "live";
	case SOURCE_STEP: return "step";
	case SOURCE_DONE: return "done";
	case SOURCE_STATIC: return "recorded";
	}
	return "?";
}
