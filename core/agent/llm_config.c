/* llm_config — where the LLM settings come from: the config file
 * ($XDG_CONFIG_HOME/argus/config, `key = value` lines), then the ARGUS_LLM_*
 * environment variables over it.  The API key comes from ARGUS_LLM_API_KEY
 * or a key file that only its owner may read. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/llm.h"
#include "base/util.h"

#define KEY_MAX 4096

static void wipe_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

const char *llm_provider_name(enum llm_provider p)
{
	return p == LLM_ANTHROPIC ? "anthropic" : "openai";
}

int llm_provider_parse(const char *s, enum llm_provider *out)
{
	if (!strcmp(s, "openai")) {
		*out = LLM_OPENAI;
		return 0;
	}
	if (!strcmp(s, "anthropic")) {
		*out = LLM_ANTHROPIC;
		return 0;
	}
	return -EINVAL;
}

void llm_config_defaults(struct llm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->provider = LLM_OPENAI;
	cfg->connect_timeout_ms = LLM_DEF_CONNECT_TIMEOUT_MS;
	cfg->timeout_ms = LLM_DEF_TIMEOUT_MS;
	cfg->max_retries = LLM_DEF_MAX_RETRIES;
	cfg->backoff_ms = LLM_DEF_BACKOFF_MS;
	cfg->max_tokens = LLM_DEF_MAX_TOKENS;
	cfg->context_tokens = LLM_DEF_CONTEXT_TOKENS;
	cfg->stream = 1;
}

void llm_config_clear(struct llm_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->url);
	free(cfg->model);
	wipe_free(cfg->api_key);
	free(cfg->source);
	memset(cfg, 0, sizeof(*cfg));
}

int llm_key_file_read(const char *path, char **key, char **cause)
{
	char buf[KEY_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len, i;
	int fd, err = 0;

	*key = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		util_cause(cause, "cannot open api key file %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		util_cause(cause, "cannot stat api key file %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		util_cause(cause, "api key file %s is not a regular file", path);
		goto out;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH)) {
		err = -EPERM;
		util_cause(cause, "api key file %s is %s by others (mode %04o); chmod 600 %s", path,
			   st.st_mode & (S_IRGRP | S_IROTH) ? "readable" : "writable",
			   (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	n = read(fd, buf, KEY_MAX);
	if (n < 0) {
		err = -errno;
		util_cause(cause, "cannot read api key file %s: %s", path, strerror(errno));
		goto out;
	}
	buf[n] = '\0';
	len = strcspn(buf, "\r\n");
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	i = 0;
	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i == len) {
		err = -EINVAL;
		util_cause(cause, "api key file %s is empty", path);
		goto out;
	}
	for (size_t j = i; j < len; j++) {
		if (!isprint((unsigned char)buf[j])) {
			err = -EINVAL;
			util_cause(cause, "api key file %s holds a non-printable character", path);
			goto out;
		}
	}
	*key = strndup(buf + i, len - i);
	if (!*key)
		err = -ENOMEM;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return err;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_uint(const char *v, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || end == v || *trim(end) || x > max || *v == '-')
		return -EINVAL;
	*out = (unsigned)x;
	return 0;
}

static int replace(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* The settings gathered before they become a config. */
struct llm_raw {
	char *provider, *url, *model, *key_file, *timeout_s, *connect_timeout_s;
	char *max_tokens, *context_tokens, *stream;
	int any;
};

static void raw_clear(struct llm_raw *r)
{
	free(r->provider);
	free(r->url);
	free(r->model);
	free(r->key_file);
	free(r->timeout_s);
	free(r->connect_timeout_s);
	free(r->max_tokens);
	free(r->context_tokens);
	free(r->stream);
	memset(r, 0, sizeof(*r));
}

static char **raw_slot(struct llm_raw *r, const char *key)
{
	if (!strcmp(key, "provider"))
		return &r->provider;
	if (!strcmp(key, "url"))
		return &r->url;
	if (!strcmp(key, "model"))
		return &r->model;
	if (!strcmp(key, "api_key_file"))
		return &r->key_file;
	if (!strcmp(key, "timeout_s"))
		return &r->timeout_s;
	if (!strcmp(key, "connect_timeout_s"))
		return &r->connect_timeout_s;
	if (!strcmp(key, "max_tokens"))
		return &r->max_tokens;
	if (!strcmp(key, "context_tokens"))
		return &r->context_tokens;
	if (!strcmp(key, "stream"))
		return &r->stream;
	return NULL;
}

static int raw_file(struct llm_raw *r, const char *path, char **cause)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		err = -errno;
		util_cause(cause, "cannot read %s: %s", path, strerror(errno));
		return err;
	}
	while (getline(&line, &cap, f) > 0) {
		char *s, *eq, *key, *val, **slot;

		lineno++;
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			err = -EINVAL;
			util_cause(cause, "%s line %u: expected key = value", path, lineno);
			goto out;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (!strcmp(key, "api_key")) {
			err = -EINVAL;
			util_cause(cause, "%s line %u: api_key is not read from the config file; "
				   "put the key in a file of mode 600 and set api_key_file", path, lineno);
			goto out;
		}
		slot = raw_slot(r, key);
		if (!slot)
			continue; /* other parts of argus read this file too */
		err = replace(slot, val);
		if (err)
			goto out;
		r->any = 1;
	}
out:
	free(line);
	fclose(f);
	return err;
}

static int raw_env(struct llm_raw *r)
{
	static const struct { const char *env, *key; } map[] = {
		{ "ARGUS_LLM_PROVIDER", "provider" },
		{ "ARGUS_LLM_URL", "url" },
		{ "ARGUS_LLM_MODEL", "model" },
		{ "ARGUS_LLM_API_KEY_FILE", "api_key_file" },
		{ "ARGUS_LLM_TIMEOUT_S", "timeout_s" },
		{ "ARGUS_LLM_CONNECT_TIMEOUT_S", "connect_timeout_s" },
		{ "ARGUS_LLM_CONTEXT_TOKENS", "context_tokens" },
	};
	int err;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const char *v = getenv(map[i].env);

		if (!v || !*v)
			continue;
		err = replace(raw_slot(r, map[i].key), v);
		if (err)
			return err;
		r->any = 1;
	}
	return 0;
}

static int path_default(char **out)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	*out = NULL;
	if (x && *x == '/')
		return asprintf(out, "%s/argus/config", x) < 0 ? -ENOMEM : 0;
	if (home && *home)
		return asprintf(out, "%s/.config/argus/config", home) < 0 ? -ENOMEM : 0;
	return 0;
}

int llm_config_load_file(struct llm_config *cfg, const char *path, char **cause)
{
	struct llm_raw raw = { 0 };
	const char *env_key = getenv("ARGUS_LLM_API_KEY");
	unsigned secs;
	int err = 0;

	llm_config_defaults(cfg);
	if (path) {
		err = raw_file(&raw, path, cause);
		if (err)
			goto out;
	}
	err = raw_env(&raw);
	if (err)
		goto out;
	if (!raw.any && !(env_key && *env_key)) {
		err = -ENOENT;
		util_cause(cause, "no LLM configured: set ARGUS_LLM_URL and ARGUS_LLM_MODEL "
			   "(and ARGUS_LLM_PROVIDER=openai|anthropic), or write %s",
			   path ? path : "$XDG_CONFIG_HOME/argus/config");
		goto out;
	}
	if (raw.provider && llm_provider_parse(raw.provider, &cfg->provider)) {
		err = -EINVAL;
		util_cause(cause, "unknown LLM provider '%s': use openai (any OpenAI-compatible "
			   "server) or anthropic", raw.provider);
		goto out;
	}
	if (raw.url) {
		size_t len;

		if (strncmp(raw.url, "http://", 7) && strncmp(raw.url, "https://", 8)) {
			err = -EINVAL;
			util_cause(cause, "LLM url '%s' is not an http:// or https:// URL", raw.url);
			goto out;
		}
		len = strlen(raw.url);
		while (len > 8 && raw.url[len - 1] == '/')
			raw.url[--len] = '\0';
		cfg->url = strdup(raw.url);
	} else {
		cfg->url = strdup(cfg->provider == LLM_ANTHROPIC ? "https://api.anthropic.com/v1"
							      : "https://api.openai.com/v1");
	}
	if (!cfg->url) {
		err = -ENOMEM;
		goto out;
	}
	if (!raw.model || !*raw.model) {
		err = -EINVAL;
		util_cause(cause, "no LLM model configured: set ARGUS_LLM_MODEL or model = in %s",
			   path ? path : "the config file");
		goto out;
	}
	cfg->model = strdup(raw.model);
	if (!cfg->model) {
		err = -ENOMEM;
		goto out;
	}
	if (raw.timeout_s) {
		if (parse_uint(raw.timeout_s, 3600, &secs) || !secs) {
			err = -EINVAL;
			util_cause(cause, "LLM timeout_s '%s' is not a number of seconds in 1..3600",
				   raw.timeout_s);
			goto out;
		}
		cfg->timeout_ms = secs * 1000u;
	}
	if (raw.connect_timeout_s) {
		if (parse_uint(raw.connect_timeout_s, 600, &secs) || !secs) {
			err = -EINVAL;
			util_cause(cause, "LLM connect_timeout_s '%s' is not a number of seconds in "
				   "1..600", raw.connect_timeout_s);
			goto out;
		}
		cfg->connect_timeout_ms = secs * 1000u;
	}
	if (raw.max_tokens) {
		if (parse_uint(raw.max_tokens, 1000000, &cfg->max_tokens) || !cfg->max_tokens) {
			err = -EINVAL;
			util_cause(cause, "LLM max_tokens '%s' is not a positive number", raw.max_tokens);
			goto out;
		}
	}
	/* the hosted APIs' models have 128k tokens or more; a local server's
	 * context is what it was started with, often 8192 or less */
	if (cfg->provider == LLM_ANTHROPIC || !strncmp(cfg->url, "https://api.openai.com/", 23))
		cfg->context_tokens = LLM_DEF_CONTEXT_TOKENS_API;
	if (raw.context_tokens) {
		if (parse_uint(raw.context_tokens, LLM_MAX_CONTEXT_TOKENS, &cfg->context_tokens) ||
		    cfg->context_tokens < LLM_MIN_CONTEXT_TOKENS) {
			err = -EINVAL;
			util_cause(cause, "LLM context_tokens '%s' is not a number of tokens in %u..%u "
				   "(the server's context: Ollama's num_ctx, llama-server's -c)",
				   raw.context_tokens, LLM_MIN_CONTEXT_TOKENS, LLM_MAX_CONTEXT_TOKENS);
			goto out;
		}
	}
	if (raw.stream) {
		if (!strcmp(raw.stream, "yes") || !strcmp(raw.stream, "true") || !strcmp(raw.stream, "1"))
			cfg->stream = 1;
		else if (!strcmp(raw.stream, "no") || !strcmp(raw.stream, "false") ||
			 !strcmp(raw.stream, "0"))
			cfg->stream = 0;
		else {
			err = -EINVAL;
			util_cause(cause, "LLM stream '%s' is not yes or no", raw.stream);
			goto out;
		}
	}
	if (env_key && *env_key) {
		for (const char *c = env_key; *c; c++) {
			if (!isprint((unsigned char)*c)) {
				err = -EINVAL;
				util_cause(cause, "ARGUS_LLM_API_KEY holds a non-printable character");
				goto out;
			}
		}
		cfg->api_key = strdup(env_key);
		if (!cfg->api_key) {
			err = -ENOMEM;
			goto out;
		}
	} else if (raw.key_file) {
		err = llm_key_file_read(raw.key_file, &cfg->api_key, cause);
		if (err)
			goto out;
	}
	if (asprintf(&cfg->source, "%s %s, model %s, context %u tokens",
		     llm_provider_name(cfg->provider), cfg->url, cfg->model, cfg->context_tokens) < 0) {
		cfg->source = NULL;
		err = -ENOMEM;
	}
out:
	raw_clear(&raw);
	if (err) {
		if (err == -ENOMEM)
			util_cause(cause, "out of memory reading the LLM configuration");
		llm_config_clear(cfg);
	}
	return err;
}

int llm_config_load(struct llm_config *cfg, char **cause)
{
	char *path = NULL;
	int err;

	err = path_default(&path);
	if (err) {
		util_cause(cause, "out of memory");
		return err;
	}
	err = llm_config_load_file(cfg, path, cause);
	free(path);
	return err;
}
