"""The `buddypool` command's modules (tools/buddypool.in is the command)."""
