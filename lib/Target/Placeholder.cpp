// Replaced by the capability table.
