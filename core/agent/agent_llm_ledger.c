/* agent_llm_ledger — the hypothesis ledger the LLM keeps in its replies
 * (see agent_llm_hypotheses in agent_llm.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "agent/agent_llm_int.h"

static void copy_trim(char *dst, size_t len, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

void al_ledger_update(struct agent_llm *al, const char *text)
{
	static const char *const states[] = { "open", "supported", "refuted" };
	const char *p = text;

	while (p && *p) {
		const char *e = strchr(p, '\n'), *s = p, *c1, *c2;
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char name[64], status[16];
		unsigned i, k;

		p = e ? e + 1 : NULL;
		while (len && (isspace((unsigned char)*s) || *s == '-' || *s == '*')) {
			s++;
			len--;
		}
		if (len < 11 || strncasecmp(s, "hypothesis:", 11))
			continue;
		s += 11;
		len -= 11;
		c1 = memchr(s, ':', len);
		if (!c1)
			continue;
		c2 = memchr(c1 + 1, ':', len - (c1 + 1 - s));
		copy_trim(name, sizeof(name), s, c1 - s);
		copy_trim(status, sizeof(status), c1 + 1, (c2 ? c2 : s + len) - (c1 + 1));
		for (k = 0; k < 3; k++)
			if (!strcasecmp(status, states[k]))
				break;
		if (!name[0] || k == 3)
			continue;
		for (i = 0; i < al->nhyp; i++)
			if (!strcasecmp(al->hyp[i].name, name))
				break;
		if (i == al->nhyp) {
			if (al->nhyp == AGENT_LLM_MAX_HYP)
				continue;
			al->nhyp++;
			memset(&al->hyp[i], 0, sizeof(al->hyp[i]));
			snprintf(al->hyp[i].name, sizeof(al->hyp[i].name), "%s", name);
		}
		snprintf(al->hyp[i].status, sizeof(al->hyp[i].status), "%s", states[k]);
		if (c2)
			copy_trim(al->hyp[i].evidence, sizeof(al->hyp[i].evidence), c2 + 1,
				  s + len - (c2 + 1));
		al->hyp[i].turn = al->turns;
	}
}

char *al_ledger_text(const struct agent_llm *al)
{
	struct al_sbuf b = { 0 };

	if (!al->nhyp)
		al_sb_addf(&b, "(none yet)\n");
	for (unsigned i = 0; i < al->nhyp; i++)
		al_sb_addf(&b, "hypothesis: %s: %s%s%s (turn %u)\n", al->hyp[i].name, al->hyp[i].status,
			al->hyp[i].evidence[0] ? ": " : "", al->hyp[i].evidence, al->hyp[i].turn);
	return al_sb_take(&b);
}

unsigned agent_llm_hypotheses(const struct agent *a, const struct agent_hyp **out)
{
	const struct agent_llm *al = a->priv;

	*out = al->hyp;
	return al->nhyp;
}
