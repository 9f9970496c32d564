/* rtop-cli-serve-stdio.h: `rdmatop-cli serve --stdio`, the remote end of
 * a remote host: the snapshot stream (rtop-stream.h) on stdout, commands
 * on stdin.
 *
 *   rdmatop-cli serve --stdio [--interval S] [--device NAME,...] [--processes]
 *
 * Commands, one per line (at most 128 bytes, ASCII):
 *   hello VERSION PRODUCER   the reader's stream version and rdmatop version
 *   interval S               sample every S seconds (0.1 to 60)
 *   refresh                  sample now
 *   keyframe                 send everything in the next frame
 *   stop                     finish and exit
 * An unknown command is named on stderr and ignored.
 *
 * It exits 0 when stdin ends or on stop, 1 on an error (a sentence on
 * stderr and, where the stream is still open, an error frame), 2 on bad
 * arguments.  Without --processes no pid, command or user leaves the
 * machine. */
#pragma once

/* argv[0] is "serve". */
int rtop_cli_serve_stdio (int argc, char **argv);
