/* run_state_int.h: what run_state.c and run_state_json.c share and nothing else sees. */
#ifndef ASKQL_RUN_STATE_INT_H
#define ASKQL_RUN_STATE_INT_H

/* the names of enum run_next and enum run_role in saved states */
extern const char *const rs_next_names[3];
extern const char *const rs_role_names[3];
/* rs_copy: a copy of v, "" for NULL when !opt, NULL for NULL when opt; *ok = 0 on no memory. */
char *rs_copy(const char *v, int opt, int *ok);

#endif
