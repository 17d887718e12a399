import Admin
import Album
import Audio
import Auth
import DeviceMonitor
import Drawing
import Geo
import Mail
import Media
import Notes
import Notebooks
import PhotoText
import Push
import Quotas
import Reminders
import ShareLink
public import PluginKit
import Storage
import Sync
import Vocabulary
import Web

/// Every plugin compiled into Quire's binaries. An app's YAML picks from these by id.
public enum PluginCatalog {
    public static let all: [PluginFactory] = [
        PluginFactory(StoragePlugin.self),
        PluginFactory(AuthPlugin.self),
        PluginFactory(NotesPlugin.self),
        PluginFactory(MediaPlugin.self),
        PluginFactory(AudioPlugin.self),
        PluginFactory(PhotoTextPlugin.self),
        PluginFactory(DrawingPlugin.self),
        PluginFactory(VocabularyPlugin.self),
        PluginFactory(GeoPlugin.self),
        PluginFactory(ShareLinkPlugin.self),
        PluginFactory(AlbumPlugin.self),
        PluginFactory(NotebooksPlugin.self),
        PluginFactory(DeviceMonitorPlugin.self),
        PluginFactory(QuotasPlugin.self),
        PluginFactory(RemindersPlugin.self),
        PluginFactory(MailPlugin.self),
        PluginFactory(SyncPlugin.self),
        PluginFactory(WebPlugin.self),
        PluginFactory(AdminPlugin.self),
        PluginFactory(PushPlugin.self),
    ]
}
