/* options.h - command-line options described by a table.
 *
 * A benchmark declares its options as
 *     static hpc_option opts[] = {
 *         {.name = "sizes", .type = HPC_SIZES, .def = "4K,1M", .min = 0, .max = 1e12,
 *          .help = "working-set sizes in bytes"},
 *         {0}                                  // terminator
 *     };
 * and reads them with hpc_opt_int("stride") etc. after hpc_init(). Lists:
 *     {.name = "halos", .type = HPC_CHOICES, .def = "pack,put", .choices = "datatype|pack|put"},
 *     {.name = "pgrids", .type = HPC_GRIDS, .def = "all", .what = "PxQ", .all = 1},
 * read with hpc_opt_list("halos", &idx) (indices into .choices, in the order given) or
 * hpc_opt_chosen("halos", on) (flags), hpc_opt_grids("pgrids", &g) or, for process grids,
 * hpc_opt_pgrids (harness.h: "all" expanded, each checked to fit the ranks). A bad value is
 * a one-line usage error naming the option. The
 * common options (--warmup, --min-reps, ...) are added by the harness; a
 * benchmark entry with the same name replaces the common one (to change its
 * default or range). Syntax: --name value or --name=value.
 */
#ifndef HPC_OPTIONS_H
#define HPC_OPTIONS_H

#include <stddef.h>

typedef enum {
    HPC_INT,     /* integer */
    HPC_SIZE,    /* non-negative integer, suffixes K, M, G (binary) */
    HPC_DOUBLE,  /* finite floating-point number */
    HPC_STRING,  /* any text */
    HPC_SIZES,   /* comma-separated list of sizes */
    HPC_CHOICE,  /* one of the '|'-separated words in .choices */
    HPC_CHOICES, /* comma-separated words of .choices, each once; with .all, "all" alone
                    means every word */
    HPC_GRIDS    /* comma-separated AxB (A, B positive; AxBxC with .dims = 3), each once;
                    "" is an empty list; with .all, "all" alone is accepted too (empty list,
                    see hpc_opt_pgrids) */
} hpc_opt_type;

/* One AxB (or AxBxC) of a HPC_GRIDS list: "4x2" is {4, 2, 0}, "4x2x3" {4, 2, 3}. */
typedef struct {
    int x, y, z;
} hpc_grid;

typedef struct {
    const char *name;     /* without the leading "--" */
    hpc_opt_type type;
    const char *def;      /* default, written as on the command line */
    double min, max;      /* allowed range of numbers (each element of a list) */
    const char *choices;  /* HPC_CHOICE(S): e.g. "none|corrupt|hang|die" */
    const char *help;
    /* Lists: what an element is, for errors ("'x' is not a mode (read, ...)", "'2by1' is
     * not PxQ") and --help; NULL: "one of <choices>" or "AxB". */
    const char *what;
    int all;              /* HPC_CHOICES, HPC_GRIDS: the value "all" is accepted */
    int dims;             /* HPC_GRIDS: 3 for AxBxC (0 or 2: AxB) */
    const char *at_most;  /* a number option: another's name, whose value it may not exceed
                           * (min-reps at_most max-reps); --describe says it, and the catalog
                           * checks it before a launch from there */

    /* Filled in by the parser. */
    const char *text;     /* effective value as given */
    long long ival;       /* HPC_INT, HPC_SIZE */
    double dval;          /* HPC_DOUBLE */
    long long *list;      /* HPC_SIZES: the sizes; HPC_CHOICES: indices into .choices */
    hpc_grid *grids;      /* HPC_GRIDS */
    int nlist;            /* elements of list or grids */
} hpc_option;

/* Merge the common and benchmark tables and parse argv[1..argc-1].
 * Returns 0 on success, 1 if --help was given, -1 on error with a one-line
 * message (without program name) in err. */
int hpc_options_parse(int argc, char **argv, const hpc_option *common,
                      const hpc_option *bench, char *err, size_t errlen);

/* Print the option table (for --help). */
void hpc_options_help(const char *prog, const char *about);

/* Print the merged table as JSON on stdout (--describe): {"binary": name, "options":
 * [{"name", "type", "default", "min", "max", "choices", "what", "all", "dims", "help"}]};
 * type is the hpc_opt_type's name in lower case without HPC_ ("sizes"), choices the
 * '|'-separated words ("" for none), dims 2 or 3 for grids (else 0). */
void hpc_options_describe(const char *name, const hpc_option *common, const hpc_option *bench);

/* Accessors; an unknown name is a programming error and aborts. */
long long hpc_opt_int(const char *name);             /* HPC_INT, HPC_SIZE */
double hpc_opt_double(const char *name);
const char *hpc_opt_str(const char *name);           /* any type: the value as given */
/* HPC_SIZES: the sizes; HPC_CHOICES: the words' indices in .choices, in the order given
 * (map them with a names array in the order of .choices). Returns the count. */
int hpc_opt_list(const char *name, const long long **values);
/* HPC_CHOICES as flags: on[k] = 1 if the k-th word of .choices was given (on has room
 * for every word). Returns how many were given. */
int hpc_opt_chosen(const char *name, int *on);
/* HPC_GRIDS, in the order given; 0 for "" and "all". */
int hpc_opt_grids(const char *name, const hpc_grid **grids);
/* Replace an "automatic" value (e.g. 0 = derive from the machine) by the
 * value actually used, so the meta record reports it. */
void hpc_opt_set_int(const char *name, long long value);

/* The merged table, for the meta record. */
int hpc_options_count(void);
const hpc_option *hpc_options_get(int i);

#endif
