/* mdinfo_doc.h - the generated tables inside a markdown file.
 *
 * A table sits between two marker lines,
 *     <!-- tunables SECTION: generated from src/tunables/md_tun_table.c -->
 *     <!-- end of tunables SECTION -->
 * and every section of the table of tunables has exactly one. */
#ifndef MDINFO_DOC_H
#define MDINFO_DOC_H

enum { MDINFO_DOC_CHECK = 0, MDINFO_DOC_UPDATE = 1 };

/* Rewrites (MDINFO_DOC_UPDATE) or compares (MDINFO_DOC_CHECK) path's
 * tables; 0, or -1 after saying on stderr what differs or is missing. */
int mdinfo_doc_file(const char *path, int mode);

#endif /* MDINFO_DOC_H */
