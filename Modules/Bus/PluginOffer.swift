/// A type one plugin offers the others, declared in its descriptor (`PluginDescriptor.offers`)
/// and gathered by the host from every plugin of the app (remote ones too) into each plugin's
/// context. A plugin that serves a kind of thing declares it instead of the plugin that uses the
/// kinds listing them at compile time: the album declares that its photos and searches can be
/// shared, and share-link learns its kinds from what the app's plugins offer.
public protocol PluginOffer: Sendable {}
