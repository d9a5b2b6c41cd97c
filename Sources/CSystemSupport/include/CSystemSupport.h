#ifndef REEL_CSYSTEMSUPPORT_H
#define REEL_CSYSTEMSUPPORT_H

/// Names the calling thread (shown by top -H, gdb, /proc/PID/task/*/comm); Linux keeps the first 15 bytes.
void reel_name_current_thread(const char *name);

/// Sets the calling thread's (not the process's) nice level to `nice_level` when that is higher than its
/// own and permitted (root, CAP_SYS_NICE, RLIMIT_NICE). Returns 1 if raised, else 0.
int reel_raise_current_thread_priority(int nice_level);

/// Gives the memory glibc holds free (in the main heap and every thread's arena) back to the system:
/// malloc_trim(0), which Swift's Glibc module does not import. Does nothing when a sanitizer's allocator is
/// malloc (glibc's heap is then unused).
void reel_release_free_memory(void);

#endif
