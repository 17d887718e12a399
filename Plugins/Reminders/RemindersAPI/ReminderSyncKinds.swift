public import SyncAPI

// What the reminders plugin lets a client sync: listed in its descriptor's `offers`, shown by its
// `ShowSynced` handler. Sync learns the kind from there; the names live here, with their owner.

/// A reminder (pending, or fired: how a device offline when it fired hears of it).
public enum SyncedReminder: SyncKind {
    public static let id = "reminders.reminder"
    public static let collection = "reminders.reminders"
}
