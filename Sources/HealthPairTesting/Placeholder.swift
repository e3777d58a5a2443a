// Placeholder: the module's code lands in a later commit.
