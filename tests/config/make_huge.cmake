# Writes configs too large or too deep to commit: a 50 MB file and 100,000 nested arrays.
string(REPEAT "0123456789" 5242880 filler)
file(WRITE "${OUT}/huge_50mb.json" "{\"description\": \"${filler}\"}")
string(REPEAT "[" 100000 open)
file(WRITE "${OUT}/deep_arrays.json" "{\"name\": ${open}")
