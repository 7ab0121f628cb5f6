/**
 * The size of a buffer that glibc keeps mapped on its own, so that freeing it gives its memory back to the system.
 * The packed state arenas (src/state/packed-states.ts) and the in-memory block backend's arenas of compressed
 * chunks (src/blocks/zipped-arenas.ts) are allocated in blocks of this size.
 */

/**
 * Bytes of a self-mapped chunk: just over 32 MiB. A chunk is one large malloc block; glibc serves blocks that large
 * by mmap and, when one of at most 32 MiB (its DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems) is freed, raises its
 * mmap threshold above it — from then on every chunk of the same size came from the main malloc heap, the holes
 * dropped arenas left there were split by the small allocations made meanwhile, and the process's resident memory
 * grew by kilobytes per block with a few hundred bytes of live data per block (measured on the packed state arenas
 * with `npm run bench -- --memory`, `MEMORY_SMAPS=1`: bench/README.md). Larger chunks stay mapped on their own and go
 * back to the system when their arena is dropped. Pages of a chunk become resident only as records are written
 * into them, so a small arena does not cost the whole chunk (V8's `external` memory counts it, though).
 */
export const MMAP_CHUNK_BYTES = 33 * 1024 * 1024
