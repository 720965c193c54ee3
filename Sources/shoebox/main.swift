import MediaProbe
print("shoebox")
