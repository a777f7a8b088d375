/* session_priv — limits shared by core/measure/session_write.c and session_read.c
 * only. */
#ifndef ARGUS_SESSION_PRIV_H
#define ARGUS_SESSION_PRIV_H

/* Bounds on what a reader takes from a file, so memory stays bounded on any
 * input: a line argus writes is ~50 KB, a note a line of text. */
#define SESSION_MAX_FILE (256ull << 20) /* 256 MiB */
#define SESSION_MAX_LINE (16u << 20)    /* one event */
#define SESSION_MAX_STR (1u << 20)      /* a note, a name, an LLM reply */
#define SESSION_MAX_EVENTS 1000000
#define SESSION_MAX_STEP 10000
#define SESSION_MAX_FRAMES 1024
#define SESSION_MAX_UFRAMES 256  /* user frames of one stack (issue 27) */

#endif
