#!/bin/bash
cat > wordcount.sh <<'S'
#!/bin/bash
# Adds up the words in every notes/*.txt file, prints the total and saves it to total.txt.
total=0
for f in notes/*.txt; do
  n=$(wc -w < "$f")
  total=$((total + n))
done
echo $total > total.txt
echo "total words: $total"
S
./wordcount.sh
