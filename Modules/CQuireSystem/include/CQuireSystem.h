// What Swift's Glibc module leaves out.
#ifndef QUIRE_CQUIRESYSTEM_H
#define QUIRE_CQUIRESYSTEM_H

/// Caps glibc's malloc arenas (mallopt M_ARENA_MAX); returns 1 on success. Call before threads start.
int quire_limit_malloc_arenas(int count);

#endif
