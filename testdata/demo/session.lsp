Content-Length: 107

{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: 259

{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:agent.toon","languageId":"toon","version":1,"text":"tools[2]:\n  - name: search\n    timeout: 30\n  - name: fetch\n    timeout: 10\n  - name: read\n    timeout: 5\n"}}}Content-Length: 44

{"jsonrpc":"2.0","id":2,"method":"shutdown"}Content-Length: 33

{"jsonrpc":"2.0","method":"exit"}