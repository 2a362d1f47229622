// What tests/test_mcp.py reads of the ToolCalls an MCP client's calls leave.

// name: session
MATCH (t:ToolCall {space: $space, id: $id}) RETURN t.session AS session
