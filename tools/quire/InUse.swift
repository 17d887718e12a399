import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a running process (a `quire serve`) has a SQLite database open, so that `quire restore`
/// refuses instead of replacing the file under it: the server would go on writing into the file set
/// aside (`.before-restore`), and its `-wal` beside the restored file belongs to the other database.
///
/// SQLite in WAL mode: every connection holds a read lock on the `-shm` file's dead-man-switch byte
/// (128, `UNIX_SHM_DMS`) while it is open. `F_GETLK` for a write lock there names the process that holds it.
enum DatabaseInUse {
    /// The pid of a process holding `path` open, or nil (no `-shm`, nobody holds it, or it cannot be told).
    static func holder(of path: String) -> Int32? {
        #if canImport(Glibc)
        let shm = path + "-shm"
        let fd = open(shm, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(fd, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) else { return nil }
        return lock.l_pid
        #else
        return nil
        #endif
    }
}
