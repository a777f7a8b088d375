/* tree_annot — freeing a node's step annotations (see tree_annot.h). */
#include <stdlib.h>

#include "data/tree_annot.h"

void tree_annot_free(struct tree_annot *a)
{
	while (a) {
		struct tree_annot *next = a->next;

		free(a->label);
		free(a->cond);
		free(a->secs);
		free(a->win);
		free(a);
		a = next;
	}
}
