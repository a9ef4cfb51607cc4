# Writes files of 100,000 nested arrays that are valid JSON, in the place of a value each io
# reader echoes in an error (issue 17: nlohmann's recursive dump() overflowed the stack at
# about 75,000 levels). Too large to commit; a test fixture writes them.
string(REPEAT "[" 100000 open)
string(REPEAT "]" 100000 close)
file(WRITE "${OUT}/deep_hf.json" "{\"hidden_size\": ${open}${close}}")
file(WRITE "${OUT}/deep_profile.json" "{\"schema\": ${open}${close}}")
file(WRITE "${OUT}/deep_nccl.json" "{\"results\": [{\"size\": 1, \"out_of_place\": ${open}${close}}]}")
