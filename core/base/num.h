/* num — the one parser of numbers typed by a person or read from a spec.
 *
 * Every option (--window, --freq, --duration ...) and every step-spec field
 * given as text goes through here, so each refuses the same things the same
 * way: no value, trailing text, NaN and infinities, values out of range
 * (1e308 seconds included) and, for the integer forms, fractions and signs.
 * The message names the value, the unit and the real limits:
 *   "'nan' is not a number between 0.05 and 600 (seconds)"
 * Leading and trailing blanks are allowed.
 */
#ifndef ARGUS_NUM_H
#define ARGUS_NUM_H

#include <stdint.h>

/* A finite double in [min, max].  unit names what the number counts
 * ("seconds", "Hz", "percent"); it is said in the message.  0, or -EINVAL
 * (-ERANGE when out of range) with *cause set to a message the caller
 * frees (cause may be NULL). */
int num_parse_double(const char *str, double min, double max, const char *unit,
		     double *out, char **cause);

/* A whole number in [min, max] (decimal; no sign unless min < 0). */
int num_parse_int64(const char *str, int64_t min, int64_t max, const char *unit,
		    int64_t *out, char **cause);

/* num_parse_int64 into an unsigned (max at most UINT32_MAX). */
int num_parse_uint(const char *str, unsigned min, unsigned max, const char *unit,
		   unsigned *out, char **cause);

/* The message for a JSON number v that must be whole and in [min, max];
 * NULL when v is fine.  Caller frees.  For spec fields read from JSON. */
char *num_check_whole(double v, double min, double max, const char *unit);

#endif
