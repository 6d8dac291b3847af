/* --transform and its options, read from the transform registry. */
#ifndef CLI_TRANSFORM_OPTIONS_H
#define CLI_TRANSFORM_OPTIONS_H

#include <stddef.h>

#include "options.h"

/* CLI_CONTINUE, or the usage error (exit 2) of a kind the command lacks a
 * hook for or an option the kind does not take (--norm with dwt, ...). */
int cli_check_transform_options(const cli_command *cmd, const cli_options *o);
/* --transform's choices for --help: "dwt (default), swt (...) or starlet (...)". */
const char *cli_transform_choices(unsigned needs, char *buf, size_t size);

#endif
