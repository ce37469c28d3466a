#!/bin/bash
cat > count_words.sh <<'SH'
#!/bin/bash
# Prints the total number of words in the text files under docs/.
total=0
for f in docs/*.txt; do
  n=$(wc -w < "$f")
  total=$((total + n))
done
echo "Total words: $total"
SH
./count_words.sh
