#ifndef REEL_CSYSTEMSUPPORT_H
#define REEL_CSYSTEMSUPPORT_H

/// Names the calling thread (shown by top -H, gdb, /proc/PID/task/*/comm); Linux keeps the first 15 bytes.
void reel_name_current_thread(const char *name);

/// Sets the calling thread's (not the process's) nice level to `nice_level` when that is higher than its
/// own and permitted (root, CAP_SYS_NICE, RLIMIT_NICE). Returns 1 if raised, else 0.
int reel_raise_current_thread_priority(int nice_level);

#endif
