/* sanitize — make strings from files, the kernel or an LLM safe to show.
 *
 * Sessions, folded files, theme files and LLM replies are made to be
 * shared, so any string read from them may hold terminal escape sequences
 * ("\x1b[2J" clears the screen, "\x1b]0;...\x07" retitles the window, an
 * OSC 52 writes the clipboard).  Every such string passes through here
 * before it reaches a terminal (stdout, stderr, curses) or a text report
 * (markdown, folded, text export).
 *
 * What is escaped:
 *   - C0 control bytes 0x00..0x1f and DEL 0x7f      -> "\x1b", "\x07" ...
 *     ('\n', '\t', '\r' are kept only with SANITIZE_KEEP_NL / _TAB / _CR)
 *   - C1 controls U+0080..U+009F (UTF-8 c2 80..c2 9f) -> "\u009b" ...
 *   - bidi overrides and isolates (U+202A..U+202E, U+2066..U+2069), which
 *     reorder what is shown (the "Trojan Source" trick)  -> "\u202e" ...
 *   - bytes that are not valid UTF-8 (stray continuation bytes, overlong
 *     forms, surrogates, code points above U+10FFFF, cut sequences)
 *                                                      -> "\xff" ...
 * Valid UTF-8 text is kept as it is.  A backslash is not escaped: the
 * result is meant for reading, not for parsing back.
 *
 * None of these functions allocate except sanitize_str/_mem; none keep
 * state.  They are safe on any byte string.
 */
#ifndef ARGUS_SANITIZE_H
#define ARGUS_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum sanitize_flags {
	SANITIZE_DEFAULT  = 0,
	SANITIZE_KEEP_NL  = 1 << 0,     /* multi-line text: keep '\n' */
	SANITIZE_KEEP_TAB = 1 << 1,     /* keep '\t' */
	SANITIZE_KEEP_CR  = 1 << 2,     /* keep '\r' (text that may hold JSON) */
	SANITIZE_TEXT     = SANITIZE_KEEP_NL | SANITIZE_KEEP_TAB,
	/* JSON's own white space kept: LLM replies carry JSON in their text */
	SANITIZE_JSON_TEXT = SANITIZE_TEXT | SANITIZE_KEEP_CR,
};

/* An escaped copy of s (NULL gives NULL, errno 0).  Caller frees; NULL
 * with errno ENOMEM on failure. */
char *sanitize_str(const char *s, unsigned flags);

/* Same for n bytes at s (which may hold NUL bytes, shown as "\x00"). */
char *sanitize_mem(const char *s, size_t n, unsigned flags);

/* Writes the escaped form of s into dst (size dstsz, always NUL-terminated
 * when dstsz > 0), never cutting an escape or a UTF-8 sequence in two.
 * Returns the length the whole escaped string needs (without the NUL), as
 * snprintf does, so a result >= dstsz means it was cut.  s NULL is "". */
size_t sanitize_into(char *dst, size_t dstsz, const char *s, unsigned flags);

/* Writes the escaped form of s to f; s NULL writes nothing.  Returns 0, or
 * EOF when the stream failed. */
int sanitize_fputs(const char *s, FILE *f, unsigned flags);

/* printf-style: formats, then writes the escaped result to f.  For messages
 * whose arguments echo input (a file name, a bad value).  0 or EOF. */
int sanitize_fprintf(FILE *f, unsigned flags, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether s needs no escaping under flags (true for NULL). */
bool sanitize_is_clean(const char *s, unsigned flags);

/* For a heap string a reader owns and keeps (names, notes): when *sp needs
 * escaping, it is replaced by the escaped copy (the old one freed); a clean
 * or NULL *sp is left alone.  0 or -ENOMEM (then *sp is unchanged). */
int sanitize_inplace(char **sp, unsigned flags);

#endif
