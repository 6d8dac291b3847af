/* Process-wide state the program owns, not the library (model: zstd's
 * programs/fileio.c): the standard descriptors, fatal signals, and the list of
 * temporary outputs a fatal signal removes. */
#ifndef WT_CLI_PROCESS_H
#define WT_CLI_PROCESS_H

/** First thing in main(): a closed fd 0, 1 or 2 becomes /dev/null opened the
 *  other way round (reading stdout or stderr fails with EBADF, so a lost report is
 *  still an error), so no file opened later gets a standard descriptor; then
 *  every temporary output is listed, and every signal whose default action
 *  ends the process (and that was not ignored at start, as nohup does) removes
 *  them and ends the process by that signal. */
void process_init(void);

/** Remove every temporary output listed now and refuse new ones (what the
 *  signal handler does; async-signal-safe). For tests. */
void process_remove_temp_files(void);

#endif
