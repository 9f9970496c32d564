/* rtop-cli-serve.h: the `serve` subcommand of rdmatop-cli.
 *
 *   rdmatop-cli serve [--listen ADDRESS:PORT] [--interval S] [--device NAME,...]
 *                     [--processes [--max-processes N] [--labels job]]
 *                     [--max-connections N]
 *
 * Samples at the interval and serves the latest pass to Prometheus.  argv[0]
 * is the subcommand name.  Exit status: 0 after SIGINT/SIGTERM, 1 runtime
 * error (one line on stderr), 2 bad arguments. */
#pragma once

int rtop_cli_serve (int argc, char **argv);
