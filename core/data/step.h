/* step — an instrumentation step: data, never code.
 *
 * A step names a kind from a fixed catalog of precompiled BPF programs and
 * its parameters.  It arrives as JSON (from the agent, an LLM, a file, or the
 * person editing it), is parsed here, validated against this kernel's
 * capabilities (core/step/step_validate.c, core/probe/caps.h) and only then handed to
 * the executor.  The JSON schema given to the LLM is prompts/step.schema.json;
 * the keys below and the schema must stay in step.
 *
 *   {"kind": "tracepoint_stacks", "target": "exceptions:page_fault_user",
 *    "filter": {"comm": "thp-fault"}, "duration_s": 5,
 *    "rationale": "...", "expect": "..."}
 *
 * Errors carry the field they concern ("kind", "target[1]", "filter.pid",
 * "duration_s"; "" for the document as a whole) so that an editor can show
 * them beside the field, and a line and column for JSON syntax errors.
 */
#ifndef ARGUS_STEP_H
#define ARGUS_STEP_H

#include <stddef.h>

enum step_kind {
	STEP_SAMPLE = 0,            /* CPU sampling (cpu-clock), kernel stacks */
	STEP_TRACEPOINT_STACKS,     /* tracepoint firings counted per kernel stack */
	STEP_TRACEPOINT_LATENCY,    /* begin/end tracepoint pair per thread -> histogram */
	STEP_FUNCTION_LATENCY,      /* fentry/fexit or kprobe/kretprobe on a function */
	STEP_OFFCPU,                /* blocked time per kernel stack, with the waker */
	STEP_COUNTS,                /* event rates of a set of tracepoints */
	STEP_KIND_N
};

/* The JSON name of a kind ("tracepoint_stacks"), or NULL when out of range. */
const char *step_kind_name(enum step_kind k);
/* The kind called name, or -EINVAL. */
int step_kind_parse(const char *name);
/* One line for people and for the LLM prompt: what the kind measures. */
const char *step_kind_help(enum step_kind k);

/* Narrows what a step measures; zero / NULL members do not filter. */
struct step_filter {
	int pid;                    /* one thread (kernel pid) */
	int tgid;                   /* one process (all its threads) */
	char *comm;                 /* task comm, exact, at most 15 bytes; owned */
	char *cgroup;               /* cgroup v2 path (absolute, or relative to the
	                               cgroup2 mount); owned */
};

/* Whose events a step counts (see core/step/step_scope.h). */
enum step_scope_kind {
	STEP_SCOPE_AUTO = 0,        /* unsaid: the run's processes when the run
	                               diagnoses some and the filter names none */
	STEP_SCOPE_LOAD,            /* the run's processes ("load"): argus put
	                               them in the filter (cgroup or tgid) */
	STEP_SCOPE_SYSTEM,          /* every process ("system"): no process filter
	                               is added; pid, tgid, cgroup are cleared */
};

/* The JSON name of a scope ("load", "system"; "" for auto). */
const char *step_scope_name(enum step_scope_kind k);

struct step {
	enum step_kind kind;
	char **targets;             /* tracepoints ("category:name", "name",
	                               "category:*") or kernel functions; owned */
	unsigned ntargets;
	char *begin, *end;          /* tracepoint_latency pair; owned, may be NULL */
	struct step_filter filter;
	enum step_scope_kind scope; /* "scope"; omitted when auto */
	double duration_s;          /* per condition and window set; > 0 */
	unsigned freq_hz;           /* sample only; 0 = the default (99 Hz) */
	unsigned sample_every;      /* tracepoint_stacks: count 1 in N; 0 = auto */
	unsigned max_stacks;        /* distinct stacks kept; 0 = the default */
	double duty;                /* tracepoint_stacks, counts: the fraction of
	                               each window the programs are attached
	                               (STEP_DUTY_MIN..1; 0 = all of it), so that
	                               a step whose events fire faster than its
	                               budget allows still runs: rates are per
	                               attached second (core/step/step_exec.h) */
	char *rationale;            /* why (agent's words); owned, may be NULL */
	char *expect;               /* what it expects to see; owned, may be NULL */

	/* Filled by step_validate, not by the parser and never serialised:
	 * targets after glob expansion and canonicalisation ("category:name"
	 * for tracepoints, "?:name" when categories are unknown; plain names
	 * for functions), in the order the targets listed them. */
	char **resolved;            /* owned */
	unsigned nresolved;
};

struct step_error {
	char field[32];             /* "kind", "target[0]", "filter.comm"; "" = whole */
	char msg[256];              /* lowercase, no trailing period */
	int line, col;              /* 1-based, JSON syntax errors only; else 0 */
};

/* Upper bounds a step must respect; step_limits_default fills the defaults. */
struct step_limits {
	double max_duration_s;      /* 30 */
	unsigned max_stacks;        /* 16384 distinct stacks per step */
	unsigned max_targets;       /* 64 tracepoints or functions after expansion */
	unsigned max_freq_hz;       /* 10000 */
	unsigned max_sample_every;  /* 1000000 */
};

/* The default limits; the spec parser refuses beyond them with these numbers. */
#define STEP_DURATION_MAX_S 30
#define STEP_STACKS_MAX 16384
#define STEP_FREQ_MAX_HZ 10000
#define STEP_SAMPLE_EVERY_MAX 1000000
#define STEP_PID_MAX 4194304        /* PID_MAX_LIMIT on 64-bit */
#define STEP_DUTY_MIN 0.05          /* attached at least 1/20 of a window */

#define STEP_DEFAULT_FREQ_HZ 99
#define STEP_DEFAULT_MAX_STACKS 4096

void step_limits_default(struct step_limits *lim);

/* Returns an empty step (kind sample, no targets), or NULL with errno set. */
struct step *step_new(void);
void step_free(struct step *s); /* NULL-safe */
/* A deep copy (resolved targets included), or NULL with errno set. */
struct step *step_clone(const struct step *s);

/* Parses a step spec from len bytes of JSON (need not be NUL-terminated).
 * Checks syntax, key names and types, and the required keys (kind,
 * duration_s, and the target or begin/end the kind needs); it does not
 * consult the kernel (see step_validate).  Returns 0 with *out set (caller
 * frees with step_free) or -EINVAL with *err filled (err may be NULL), or
 * -ENOMEM. */
int step_parse_json(const char *text, size_t len, struct step **out, struct step_error *err);

/* Serialises s as a pretty-printed JSON object (the keys step_parse_json
 * reads; defaults omitted).  Returns a NUL-terminated string the caller
 * frees with free(), or NULL with errno set. */
char *step_to_json(const struct step *s);

/* One line for people: "tracepoint_stacks exceptions:page_fault_user comm=x 5s"
 * ("... scope=load 5s" for a step scoped to the run's processes: their
 * pid, tgid or cgroup is not repeated).
 * Writes at most len bytes into buf; returns buf. */
char *step_describe(const struct step *s, char *buf, size_t len);

/* Sets one field from text, as a person editing field by field types it:
 * field is a JSON key ("kind", "target" — comma-separated list —, "begin",
 * "end", "duration_s", "freq_hz", "sample_every", "max_stacks", "duty", "rationale",
 * "expect", "filter.pid", "filter.tgid", "filter.comm", "filter.cgroup",
 * "scope" — load, system or empty —); an empty value clears an optional
 * field.  Setting scope to system or load clears filter.pid, .tgid and
 * .cgroup (for load the run's processes are put back by step_scope_apply).
 * Returns 0, or -EINVAL with *err filled, or -ENOMEM. */
int step_set_field(struct step *s, const char *field, const char *value, struct step_error *err);

/* Checks that the kind's required fields are present (a target, or begin
 * and end, and a duration).  Returns 0 or -EINVAL with *err filled. */
int step_check_required(const struct step *s, struct step_error *err);

/* Fills err (may be NULL) printf-style; returns -EINVAL. */
int step_error_set(struct step_error *err, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Levenshtein distance between a and b, capped at cap (returns cap when
 * the distance is at least cap); for "did you mean" suggestions. */
unsigned step_edit_distance(const char *a, const char *b, unsigned cap);

struct caps; /* core/probe/caps.h */

/* Validates s against this kernel (c) and the limits (lim NULL = defaults):
 * the kind exists and is available here, durations and map sizes are within
 * limits, every target exists and can be attached (globs are expanded; the
 * result goes to s->resolved), the filter names a live process or cgroup.
 * Returns 0, or -EINVAL with *err filled with the first problem found and
 * its field, or -ENOMEM. */
int step_validate(struct step *s, const struct caps *c, const struct step_limits *lim,
		  struct step_error *err);

#endif
