/* describe.c - the merged option table as JSON (--describe, options.h). */
#include "options.h"

#include <stdio.h>

static const char *type_name(hpc_opt_type t)
{
    static const char *const names[] = {"int", "size", "double", "string", "sizes",
                                        "choice", "choices", "grids"};
    return names[t];
}

/* A JSON string (the table's texts are ASCII; control characters escaped all the same). */
static void json_str(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void describe_one(const hpc_option *o)
{
    printf("{\"name\": ");
    json_str(o->name);
    printf(", \"type\": \"%s\", \"default\": ", type_name(o->type));
    json_str(o->def);
    /* %.17g: the double exactly as the parser compares against it */
    printf(", \"min\": %.17g, \"max\": %.17g, \"choices\": ", o->min, o->max);
    json_str(o->choices);
    printf(", \"what\": ");
    json_str(o->what);
    printf(", \"all\": %s, \"dims\": %d, \"help\": ", o->all ? "true" : "false",
           o->type == HPC_GRIDS ? (o->dims == 3 ? 3 : 2) : 0);
    json_str(o->help);
    if (o->at_most) {
        printf(", \"at_most\": ");
        json_str(o->at_most);
    }
    printf("}");
}

void hpc_options_describe(const char *name, const hpc_option *common, const hpc_option *bench)
{
    /* Parsing no arguments merges the tables (and checks every default). */
    char *argv[] = {(char *)name, NULL};
    char err[256];
    if (hpc_options_parse(1, argv, common, bench, err, sizeof err) != 0) {
        fprintf(stderr, "internal error: %s\n", err);
        return;
    }
    printf("{\"binary\": ");
    json_str(name);
    printf(", \"options\": [");
    for (int i = 0; i < hpc_options_count(); i++) {
        printf("%s\n  ", i ? "," : "");
        describe_one(hpc_options_get(i));
    }
    printf("]}\n");
}
