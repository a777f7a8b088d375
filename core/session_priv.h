/* session_priv — limits shared by core/session_write.c and session_read.c
 * only. */
#ifndef ARGUS_SESSION_PRIV_H
#define ARGUS_SESSION_PRIV_H

#define SESSION_MAX_FILE (1ull << 30)  /* 1 GiB */
#define SESSION_MAX_STEP 10000
#define SESSION_MAX_FRAMES 1024

#endif
