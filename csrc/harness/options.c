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
    case HPC_SIZES: {
        int n = 1;
        for (const char *p = v; *p; p++)
            n += *p == ',';
        long long *list = malloc((size_t)n * sizeof *list);
        char *copy = strdup(v);
        if (!list || !copy)
            abort();
        /* Split by hand: strtok would silently skip empty elements. */
        char *item = copy;
        for (int i = 0; i < n; i++) {
            char *comma = strchr(item, ',');
            if (comma)
                *comma = '\0';
            if (size_value(o, item, &list[i], err, errlen)) {
                free(list);
                free(copy);
                return -1;
            }
            item = comma + 1;
        }
        free(copy);
        free(o->list);
        o->list = list;
        o->nlist = n;
        break;
    }
    }
    o->text = v;
    return 0;
}

int hpc_options_parse(int argc, char **argv, const hpc_option *common,
                      const hpc_option *bench, char *err, size_t errlen)
{
    /* Merge: benchmark entries first, then the common ones they do not replace. */
    ntable = 0;
    for (const hpc_option *o = bench; o && o->name; o++)
        table[ntable++] = *o;
    for (const hpc_option *o = common; o->name; o++)
        if (!find(o->name, strlen(o->name)))
            table[ntable++] = *o;

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
    return 0;
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
    }
    return "?";
}

void hpc_options_help(const char *prog, const char *about)
{
    printf("usage: %s [--option value | --option=value]...\n%s\n\n", prog, about);
    printf("SIZE: non-negative integer, suffixes K, M, G are binary (1K = 1024);\n"
           "SIZES: comma-separated list of SIZE.\n\n");
    for (int i = 0; i < ntable; i++) {
        const hpc_option *o = &table[i];
        char head[64];
        snprintf(head, sizeof head, "--%s %s", o->name, type_word(o->type));
        printf("  %-22s %s\n", head, o->help);
        printf("  %-22s default: %s", "", o->def);
        if (o->type == HPC_CHOICE)
            printf("; one of %s", o->choices);
        else if (o->type != HPC_STRING) {
            char range[96];
            format_range(o, range, sizeof range);
            printf("; range %s", range);
        }
        printf("\n");
    }
    printf("  %-22s print this table and exit\n", "--help");
}

long long hpc_opt_int(const char *name)
{
    return lookup(name, HPC_INT, HPC_SIZE)->ival;
}

double hpc_opt_double(const char *name)
{
    return lookup(name, HPC_DOUBLE, HPC_DOUBLE)->dval;
}

const char *hpc_opt_str(const char *name)
{
    return lookup(name, HPC_STRING, HPC_CHOICE)->text;
}

int hpc_opt_list(const char *name, const long long **values)
{
    hpc_option *o = lookup(name, HPC_SIZES, HPC_SIZES);
    *values = o->list;
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
