// Plugins describe routes with HTTPTypes' methods and statuses (`.get`, `.created`); importing
// HTTPKit is enough to write one.
@_exported public import HTTPTypes
