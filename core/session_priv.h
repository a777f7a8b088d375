/* session_priv — shared by core/session.c, session_write.c and
 * session_read.c only. */
#ifndef ARGUS_SESSION_PRIV_H
#define ARGUS_SESSION_PRIV_H

#define SESSION_MAX_FILE (1ull << 30)  /* 1 GiB */
#define SESSION_MAX_STEP 10000
#define SESSION_MAX_FRAMES 1024

/* Sets *cause (when cause is not NULL; the old one freed) and returns err. */
int session_fail(char **cause, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
