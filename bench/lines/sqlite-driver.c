/*
 * sqlite-driver.c — a small real workload over SQLite's amalgamation for
 * the line-level bench: builds a table, indexes it, runs joins, sorts and
 * aggregates, so the profile spreads over the parser, the VDBE and the
 * B-tree.  Usage: sqlite-driver [ROWS]
 */
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3.h"

static void run(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sqlite-driver: %s: %s\n", sql, msg ? msg : "error");
		sqlite3_free(msg);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
	sqlite3 *db;
	sqlite3_stmt *ins;
	long i;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	run(db, "CREATE TABLE t(a INTEGER, b TEXT, c REAL)");
	run(db, "BEGIN");
	if (sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
		return 1;
	for (i = 0; i < rows; i++) {
		char text[32];

		snprintf(text, sizeof text, "row%ld", (i * 7919) % rows);
		sqlite3_bind_int64(ins, 1, (i * 104729) % 1000);
		sqlite3_bind_text(ins, 2, text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(ins, 3, i * 0.5);
		sqlite3_step(ins);
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	run(db, "COMMIT");
	run(db, "CREATE INDEX tb ON t(b)");
	run(db, "CREATE TABLE s AS SELECT a, count(*) AS n, sum(c) AS total FROM t GROUP BY a");
	run(db, "SELECT count(*) FROM t JOIN s USING(a) WHERE t.c > s.total / s.n");
	run(db, "SELECT b FROM t ORDER BY c DESC LIMIT 10");
	run(db, "SELECT a, group_concat(b) FROM t WHERE b LIKE 'row1%' GROUP BY a");
	sqlite3_close(db);
	return 0;
}
