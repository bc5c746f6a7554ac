/* options.c - table-driven parsing of --name value / --name=value options. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OPTIONS = 64 };
static hpc_option table[MAX_OPTIONS];
static int ntable;

static hpc_option *find(const char *name, size_t len)
{
    for (int i = 0; i < ntable; i++)
        if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0)
            return &table[i];
    return NULL;
}

static hpc_option *lookup(const char *name, hpc_opt_type t1, hpc_opt_type t2)
{
    hpc_option *o = find(name, strlen(name));
    if (!o || (o->type != t1 && o->type != t2)) {
        fprintf(stderr, "internal error: no option --%s of this type\n", name);
        abort();
    }
    return o;
}

/* Non-negative integer with an optional binary suffix K, M or G.
 * Returns 0, -1 if not such a number, -2 if it does not fit. */
static int parse_size(const char *s, long long *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -2;
    unsigned long long mult = 1;
    switch (*end) {
    case 'K': case 'k': mult = 1ULL << 10; end++; break;
    case 'M': case 'm': mult = 1ULL << 20; end++; break;
    case 'G': case 'g': mult = 1ULL << 30; end++; break;
    }
    if (*end != '\0')
        return -1;
    if (v > (unsigned long long)LLONG_MAX / mult)
        return -2;
    *out = (long long)(v * mult);
    return 0;
}

/* "[min, max]": integers in full, not as 4.61e+18. */
static void format_range(const hpc_option *o, char *buf, size_t len)
{
    if (o->type == HPC_DOUBLE)
        snprintf(buf, len, "[%.15g, %.15g]", o->min, o->max);
    else
        snprintf(buf, len, "[%.0f, %.0f]", o->min, o->max);
}

static int range_error(const hpc_option *o, const char *v, char *err, size_t errlen)
{
    char range[96];
    format_range(o, range, sizeof range);
    snprintf(err, errlen, "option --%s: %s is out of range %s", o->name, v, range);
    return -1;
}

/* Parse one size (an element of a list or a HPC_SIZE value) and check its range. */
static int size_value(const hpc_option *o, const char *v, long long *out,
                      char *err, size_t errlen)
{
    int rc = parse_size(v, out);
    if (rc == -1) {
        snprintf(err, errlen, "option --%s: value '%s' is not a non-negative integer",
                 o->name, v);
        return -1;
    }
    if (rc == -2 || (double)*out < o->min || (double)*out > o->max)
        return range_error(o, v, err, errlen);
    return 0;
}

/* "a|b|c" -> "a, b, c" (and ", all" with .all), for messages. */
static void format_choices(const hpc_option *o, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *c = o->choices; *c && k + 3 < len; c++) {
        if (*c == '|') {
            buf[k++] = ',';
            buf[k++] = ' ';
        } else
            buf[k++] = *c;
    }
    buf[k] = '\0';
    if (o->all)
        snprintf(buf + k, len - k, ", all");
}

/* Index of word w (len bytes) among the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *w, size_t len)
{
    int k = 0;
    for (const char *c = choices; *c; k++) {
        size_t wl = strcspn(c, "|");
        if (wl == len && strncmp(c, w, len) == 0)
            return k;
        c += wl + (c[wl] == '|');
    }
    return -1;
}

static int choice_count(const char *choices)
{
    int n = 1;
    for (const char *c = choices; *c; c++)
        n += *c == '|';
    return n;
}

/* "AxB" (dims 2) or "AxBxC" (dims 3), positive ints. */
static int parse_grid(const char *s, hpc_grid *g, int dims)
{
    int v[3] = {0, 0, 0};
    for (int d = 0; d < dims; d++) {
        if ((d && *s++ != 'x') || !isdigit((unsigned char)*s))
            return -1;
        char *end;
        errno = 0;
        long a = strtol(s, &end, 10);
        if (errno == ERANGE || a < 1 || a > INT_MAX)
            return -1;
        v[d] = (int)a;
        s = end;
    }
    if (*s)
        return -1;
    *g = (hpc_grid){v[0], v[1], v[2]};
    return 0;
}

/* One element of a list into element k of o->list or o->grids; 1 if it repeats an
 * earlier one (sizes may repeat). */
static int list_item(hpc_option *o, const char *item, int k, char *err, size_t errlen)
{
    if (o->type == HPC_SIZES)
        return size_value(o, item, &o->list[k], err, errlen) ? -1 : 0;
    if (o->type == HPC_GRIDS) {
        hpc_grid *g = &o->grids[k];
        if (parse_grid(item, g, o->dims == 3 ? 3 : 2)) {
            snprintf(err, errlen, "option --%s: '%s' is not %s", o->name, item,
                     o->what ? o->what : o->dims == 3 ? "AxBxC" : "AxB");
            return -1;
        }
        for (int m = 0; m < k; m++)
            if (o->grids[m].x == g->x && o->grids[m].y == g->y && o->grids[m].z == g->z)
                return 1;
        return 0;
    }
    o->list[k] = choice_index(o->choices, item, strlen(item));
    if (o->list[k] < 0 && o->all && strcmp(item, "all") == 0) {
        snprintf(err, errlen, "option --%s: 'all' is given with other words", o->name);
        return -1;
    }
    if (o->list[k] < 0) {
        char words[256];
        format_choices(o, words, sizeof words);
        if (o->what)
            snprintf(err, errlen, "option --%s: '%s' is not %s (%s)", o->name, item, o->what,
                     words);
        else
            snprintf(err, errlen, "option --%s: '%s' is not one of %s", o->name, item, words);
        return -1;
    }
    for (int m = 0; m < k; m++)
        if (o->list[m] == o->list[k])
            return 1;
    return 0;
}

/* "all" of a list that accepts it: every choice, or (grids) an empty list. */
static int list_all(hpc_option *o)
{
    o->nlist = o->type == HPC_CHOICES ? choice_count(o->choices) : 0;
    for (int k = 0; o->type == HPC_CHOICES && k < o->nlist; k++)
        o->list[k] = k;
    return 0;
}

/* A comma-separated list (HPC_SIZES, HPC_CHOICES, HPC_GRIDS) into o->list or o->grids. */
static int set_list(hpc_option *o, const char *v, char *err, size_t errlen)
{
    int n = 1;
    for (const char *p = v; *p; p++)
        n += *p == ',';
    int room = n;  /* for the elements, or for every choice ("all") */
    if (o->type == HPC_CHOICES && choice_count(o->choices) > n)
        room = choice_count(o->choices);
    free(o->list);
    free(o->grids);
    o->list = calloc((size_t)room, sizeof *o->list);
    o->grids = calloc((size_t)room, sizeof *o->grids);
    char *copy = strdup(v);
    if (!o->list || !o->grids || !copy)
        abort();
    o->nlist = 0;
    int rc = 0;
    if (o->all && strcmp(v, "all") == 0)
        rc = list_all(o);
    else if (!(o->type == HPC_GRIDS && v[0] == '\0')) {
        /* Split by hand: strtok would silently skip empty elements. */
        char *item = copy;
        for (int k = 0; k < n && rc == 0; k++) {
            char *comma = strchr(item, ',');
            if (comma)
                *comma = '\0';
            if (item[0] == '\0' && o->type != HPC_SIZES) {
                snprintf(err, errlen, "option --%s: '%s' is not a comma list", o->name, v);
                rc = -1;
            } else if ((rc = list_item(o, item, k, err, errlen)) == 1) {
                /* A repeated point would be measured (and recorded) twice. */
                snprintf(err, errlen, "option --%s: '%s' is given twice", o->name, item);
                rc = -1;
            }
            o->nlist = k + 1;
            if (comma)
                item = comma + 1;
        }
    }
    free(copy);
    return rc;
}

static int set_value(hpc_option *o, const char *v, char *err, size_t errlen)
{
    char *end;
    switch (o->type) {
    case HPC_INT:
        errno = 0;
        o->ival = strtoll(v, &end, 10);
        if (v[0] == '\0' || *end != '\0' || isspace((unsigned char)v[0])) {
            snprintf(err, errlen, "option --%s: value '%s' is not an integer", o->name, v);
            return -1;
        }
        if (errno == ERANGE || (double)o->ival < o->min || (double)o->ival > o->max)
            return range_error(o, v, err, errlen);
        break;
    case HPC_SIZE:
        if (size_value(o, v, &o->ival, err, errlen))
            return -1;
        break;
    case HPC_DOUBLE:
        o->dval = strtod(v, &end);
        if (v[0] == '\0' || *end != '\0' || isspace((unsigned char)v[0]) || !isfinite(o->dval)) {
            snprintf(err, errlen, "option --%s: value '%s' is not a number", o->name, v);
            return -1;
        }
        if (o->dval < o->min || o->dval > o->max)
            return range_error(o, v, err, errlen);
        break;
    case HPC_STRING:
        break;
    case HPC_CHOICE: {
        /* Look for v as a whole word of "a|b|c". */
        size_t len = strlen(v);
        const char *c = o->choices;
        int found = 0;
        while (*c && !found) {
            size_t wl = strcspn(c, "|");
            found = wl == len && strncmp(c, v, len) == 0;
            c += wl + (c[wl] == '|');
        }
        if (!found || len == 0) {
            snprintf(err, errlen, "option --%s: value '%s' is not one of %s",
                     o->name, v, o->choices);
            return -1;
        }
        break;
    }
    case HPC_SIZES:
    case HPC_CHOICES:
    case HPC_GRIDS:
        if (set_list(o, v, err, errlen))
            return -1;
        break;
    }
    o->text = v;
    return 0;
}

/* Benchmark entries first, then the common ones they do not replace. */
static void merge(const hpc_option *common, const hpc_option *bench)
{
    ntable = 0;
    for (const hpc_option *o = bench; o && o->name; o++)
        table[ntable++] = *o;
    for (const hpc_option *o = common; o->name; o++)
        if (!find(o->name, strlen(o->name)))
            table[ntable++] = *o;
}

static double number(const hpc_option *o)
{
    return o->type == HPC_DOUBLE ? o->dval : (double)o->ival;
}

/* Every option's at_most relation, after the whole command line is read. */
static int check_at_most(char *err, size_t errlen)
{
    for (int i = 0; i < ntable; i++) {
        const hpc_option *o = &table[i], *cap;
        if (!o->at_most)
            continue;
        cap = find(o->at_most, strlen(o->at_most));
        if (cap && number(o) > number(cap)) {
            snprintf(err, errlen, "option --%s: %s is larger than --%s %s", o->name, o->text,
                     cap->name, cap->text);
            return -1;
        }
    }
    return 0;
}

int hpc_options_parse(int argc, char **argv, const hpc_option *common,
                      const hpc_option *bench, char *err, size_t errlen)
{
    merge(common, bench);

    for (int i = 0; i < ntable; i++)
        if (set_value(&table[i], table[i].def, err, errlen)) {
            fprintf(stderr, "internal error: bad default: %s\n", err);
            abort();
        }

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return 1;
        if (strncmp(arg, "--", 2) != 0) {
            snprintf(err, errlen, "unexpected argument '%s'", arg);
            return -1;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        hpc_option *o = find(name, len);
        if (!o || len == 0) {
            snprintf(err, errlen, "unknown option '%.*s'", (int)(len + 2), arg);
            return -1;
        }
        const char *value;
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else {
            snprintf(err, errlen, "option --%s: missing value", o->name);
            return -1;
        }
        if (set_value(o, value, err, errlen))
            return -1;
    }
    return check_at_most(err, errlen);
}

static const char *type_word(hpc_opt_type t)
{
    switch (t) {
    case HPC_INT: return "N";
    case HPC_SIZE: return "SIZE";
    case HPC_DOUBLE: return "X";
    case HPC_STRING: return "TEXT";
    case HPC_SIZES: return "SIZES";
    case HPC_CHOICE: return "WORD";
    case HPC_CHOICES: return "WORD,...";
    case HPC_GRIDS: return "AxB,...";
    }
    return "?";
}

void hpc_options_help(const char *prog, const char *about)
{
    printf("usage: %s [--option value | --option=value]...\n%s\n\n", prog, about);
    printf("SIZE: non-negative integer, suffixes K, M, G are binary (1K = 1024);\n"
           "SIZES: comma-separated list of SIZE; WORD,...: comma-separated words, each once;\n"
           "AxB,...: comma-separated grids such as 4x2 (or 4x2x3), each once.\n\n");
    for (int i = 0; i < ntable; i++) {
        const hpc_option *o = &table[i];
        char head[64];
        if (o->type == HPC_GRIDS && o->what)
            snprintf(head, sizeof head, "--%s %s,...", o->name, o->what);
        else
            snprintf(head, sizeof head, "--%s %s", o->name, type_word(o->type));
        printf("  %-22s %s\n", head, o->help);
        printf("  %-22s default: %s", "", o->def);
        if (o->type == HPC_CHOICE)
            printf("; one of %s", o->choices);
        else if (o->type == HPC_CHOICES) {
            char words[256];
            format_choices(o, words, sizeof words);
            printf("; some of %s", words);
        } else if (o->type != HPC_STRING && o->type != HPC_GRIDS) {
            char range[96];
            format_range(o, range, sizeof range);
            printf("; range %s", range);
        }
        printf("\n");
    }
    printf("  %-22s print this table and exit\n", "--help");
    printf("  %-22s print this table as JSON and exit (alone, without MPI)\n", "--describe");
}

long long hpc_opt_int(const char *name)
{
    return lookup(name, HPC_INT, HPC_SIZE)->ival;
}

double hpc_opt_double(const char *name)
{
    return lookup(name, HPC_DOUBLE, HPC_DOUBLE)->dval;
}

/* Any option's value as given. */
const char *hpc_opt_str(const char *name)
{
    hpc_option *o = find(name, strlen(name));
    if (!o) {
        fprintf(stderr, "internal error: no option --%s\n", name);
        abort();
    }
    return o->text;
}

int hpc_opt_list(const char *name, const long long **values)
{
    hpc_option *o = lookup(name, HPC_SIZES, HPC_CHOICES);
    *values = o->list;
    return o->nlist;
}

int hpc_opt_chosen(const char *name, int *on)
{
    hpc_option *o = lookup(name, HPC_CHOICES, HPC_CHOICES);
    memset(on, 0, sizeof *on * (size_t)choice_count(o->choices));
    for (int k = 0; k < o->nlist; k++)
        on[o->list[k]] = 1;
    return o->nlist;
}

int hpc_opt_grids(const char *name, const hpc_grid **grids)
{
    hpc_option *o = lookup(name, HPC_GRIDS, HPC_GRIDS);
    *grids = o->grids;
    return o->nlist;
}

void hpc_opt_set_int(const char *name, long long value)
{
    hpc_option *o = lookup(name, HPC_INT, HPC_SIZE);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", value);
    o->ival = value;
    o->text = strdup(buf);
}

int hpc_options_count(void)
{
    return ntable;
}

const hpc_option *hpc_options_get(int i)
{
    return &table[i];
}
