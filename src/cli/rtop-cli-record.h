/* rtop-cli-record.h: the `record` and `recover` subcommands of rdmatop-cli.
 *
 *   rdmatop-cli record --output FILE [--duration S] [--interval S]
 *                      [--device NAME,...] [--format NAME]
 *                      (NAME: a recordable row of the format table)
 *   rdmatop-cli recover FILE [--output OUT]
 *
 * argv[0] is the subcommand name.  Exit status: 0 done, 1 runtime error (one
 * line on stderr), 2 bad arguments. */
#pragma once

int rtop_cli_record (int argc, char **argv);
int rtop_cli_recover (int argc, char **argv);
