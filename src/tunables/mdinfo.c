/* mdinfo - what multidev can be told, and what it is told now.
 *
 *   mdinfo --env               every variable's value in this environment
 *                              and where it comes from; exit 1 if one is
 *                              malformed or a MULTIDEV_* variable set is
 *                              no variable of multidev
 *   mdinfo --names             the declared variables, one a line
 *   mdinfo --doc SECTION       the markdown table of a section
 *   mdinfo --doc-update FILE   rewrite FILE's generated tables
 *   mdinfo --doc-check FILE    exit 1 if FILE's tables are not what the
 *                              declarations give (test/tunables)
 *
 * All of it comes from the table of tunables (src/tunables/md_tun_table.c). */
#include <stdio.h>
#include <string.h>

#include "mdinfo_doc.h"
#include "md_tun.h"

static int said;

static void say_stderr(const char *line)
{
    fprintf(stderr, "mdinfo: %s\n", line);
    said++;
}

static const char *origin_name(int origin, const md_tun_t *t)
{
    switch (origin) {
    case MD_TUN_ENV:      return "environment";
    case MD_TUN_FALLBACK: return t->fallback;
    case MD_TUN_DEFAULT:  return "default";
    default:              return "unset";
    }
}

static int print_env(void)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);
    char shown[600];

    for (size_t i = 0; i < n; i++) {
        md_tun_value_t v;
        int origin = md_tun_env(t[i].name, &v, say_stderr);

        if (origin < 0)
            continue;
        if (origin == MD_TUN_UNSET)
            snprintf(shown, sizeof(shown), "%s", t[i].name);
        else
            snprintf(shown, sizeof(shown), "%s=%s", t[i].name, v.text);
        printf("%-44s %s", shown, origin_name(origin, &t[i]));
        if (origin == MD_TUN_UNSET && t[i].def_doc != NULL && strcmp(t[i].def_doc, "unset") != 0)
            printf(": %s", t[i].def_doc);
        if (t[i].key != NULL && origin != MD_TUN_ENV)
            printf(" (the device line's %s= wins)", t[i].key);
        printf("\n");
    }
    md_tun_check_environ(say_stderr);
    return said == 0 ? 0 : 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mdinfo --env | --names | --doc SECTION | --doc-update FILE | "
               "--doc-check FILE\n");
}

int main(int argc, char **argv)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    if (argc == 2 && strcmp(argv[1], "--env") == 0)
        return print_env();
    if (argc == 2 && strcmp(argv[1], "--names") == 0) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", t[i].name);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--doc") == 0) {
        if (md_tun_doc_table(argv[2], stdout) > 0)
            return 0;
        fprintf(stderr, "mdinfo: no variables in section '%s'\n", argv[2]);
        return 2;
    }
    if (argc == 3 && strcmp(argv[1], "--doc-update") == 0)
        return mdinfo_doc_file(argv[2], MDINFO_DOC_UPDATE) == 0 ? 0 : 1;
    if (argc == 3 && strcmp(argv[1], "--doc-check") == 0)
        return mdinfo_doc_file(argv[2], MDINFO_DOC_CHECK) == 0 ? 0 : 1;
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
